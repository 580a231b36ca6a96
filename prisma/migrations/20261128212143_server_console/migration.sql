-- AlterTable
ALTER TABLE "ProviderServer" ADD COLUMN     "rootPasswordHash" TEXT;

-- CreateTable
CREATE TABLE "ProviderConsoleTicket" (
    "ticketHash" TEXT NOT NULL,
    "serverId" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProviderConsoleTicket_pkey" PRIMARY KEY ("ticketHash")
);

-- CreateIndex
CREATE INDEX "ProviderConsoleTicket_serverId_idx" ON "ProviderConsoleTicket"("serverId");

-- AddForeignKey
ALTER TABLE "ProviderConsoleTicket" ADD CONSTRAINT "ProviderConsoleTicket_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "ProviderServer"("serverId") ON DELETE CASCADE ON UPDATE CASCADE;
