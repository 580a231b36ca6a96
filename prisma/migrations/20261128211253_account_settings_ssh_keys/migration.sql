-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "invoiceEmail" TEXT;

-- AlterTable
ALTER TABLE "DashboardSession" ADD COLUMN     "clientAddress" TEXT,
ADD COLUMN     "lastSeenAt" TIMESTAMPTZ(3),
ADD COLUMN     "userAgent" TEXT;

-- AlterTable
ALTER TABLE "Server" ADD COLUMN     "sshKeys" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "SshKey" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "keyType" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "bits" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SshKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SshKey_accountId_id_idx" ON "SshKey"("accountId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "SshKey_accountId_fingerprint_key" ON "SshKey"("accountId", "fingerprint");

-- AddForeignKey
ALTER TABLE "SshKey" ADD CONSTRAINT "SshKey_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
