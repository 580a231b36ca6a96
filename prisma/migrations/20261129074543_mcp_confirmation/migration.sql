-- CreateTable
CREATE TABLE "McpConfirmation" (
    "nonce" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "credentialId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "usedAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "McpConfirmation_pkey" PRIMARY KEY ("nonce")
);

-- CreateIndex
CREATE INDEX "McpConfirmation_accountId_expiresAt_idx" ON "McpConfirmation"("accountId", "expiresAt");

-- AddForeignKey
ALTER TABLE "McpConfirmation" ADD CONSTRAINT "McpConfirmation_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
