-- AlterTable
ALTER TABLE "IdempotencyRecord" ADD COLUMN     "claimToken" TEXT,
ADD COLUMN     "leaseUntil" TIMESTAMPTZ(3),
ADD COLUMN     "steps" JSONB;
