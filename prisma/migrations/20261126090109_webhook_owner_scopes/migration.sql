-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "ownerScopes" TEXT[] DEFAULT ARRAY['*']::TEXT[];
