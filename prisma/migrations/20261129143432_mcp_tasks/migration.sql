-- CreateTable
CREATE TABLE "McpTask" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "credentialId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "resourceId" TEXT,
    "result" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "settledAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "McpTask_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "McpTask_accountId_credentialId_createdAt_idx" ON "McpTask"("accountId", "credentialId", "createdAt");

-- CreateIndex
CREATE INDEX "McpTask_expiresAt_idx" ON "McpTask"("expiresAt");

-- AddForeignKey
ALTER TABLE "McpTask" ADD CONSTRAINT "McpTask_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
