-- AlterTable
ALTER TABLE "HostingDatabase" ADD COLUMN     "passwordSetAt" TIMESTAMPTZ(3);
