-- AlterTable
ALTER TABLE "IdempotencyRecord" DROP CONSTRAINT "IdempotencyRecord_pkey",
ADD COLUMN     "credentialId" TEXT NOT NULL DEFAULT '',
ADD CONSTRAINT "IdempotencyRecord_pkey" PRIMARY KEY ("accountId", "credentialId", "key");
