-- AlterTable
ALTER TABLE "DashboardSession" ADD COLUMN     "passwordAt" TIMESTAMPTZ(3),
ADD COLUMN     "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "SsoToken" ADD COLUMN     "scopes" TEXT[];
