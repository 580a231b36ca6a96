-- AlterTable
ALTER TABLE "Server" ADD COLUMN     "poolId" TEXT;

-- AlterTable
ALTER TABLE "ServerIp" ADD COLUMN     "addonId" TEXT,
ADD COLUMN     "poolId" TEXT,
ALTER COLUMN "serverId" DROP NOT NULL;

-- AlterTable
ALTER TABLE "WalletTransaction" ADD COLUMN     "reference" TEXT;

-- CreateTable
CREATE TABLE "ServerAddon" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "serverId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "activeType" TEXT,
    "monthlyUsdCents" INTEGER NOT NULL,
    "chargedUsdCents" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ServerAddon_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SsoToken" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "serverId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "next" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SsoToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Pool" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "productId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "vcpu" INTEGER NOT NULL,
    "ram2gb" INTEGER NOT NULL,
    "disk100" INTEGER NOT NULL,
    "ip16" INTEGER NOT NULL,
    "ratesCents" JSONB NOT NULL,
    "monthlyUsdCents" INTEGER NOT NULL,
    "paidUntil" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Pool_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProviderStock" (
    "key" TEXT NOT NULL,
    "available" INTEGER NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ProviderStock_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "ServerAddon_accountId_idx" ON "ServerAddon"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "ServerAddon_serverId_activeType_key" ON "ServerAddon"("serverId", "activeType");

-- CreateIndex
CREATE UNIQUE INDEX "SsoToken_tokenHash_key" ON "SsoToken"("tokenHash");

-- CreateIndex
CREATE INDEX "SsoToken_accountId_idx" ON "SsoToken"("accountId");

-- CreateIndex
CREATE INDEX "Pool_accountId_createdAt_idx" ON "Pool"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "Server_poolId_idx" ON "Server"("poolId");

-- CreateIndex
CREATE INDEX "ServerIp_poolId_idx" ON "ServerIp"("poolId");

-- CreateIndex
CREATE INDEX "ServerIp_addonId_idx" ON "ServerIp"("addonId");

-- AddForeignKey
ALTER TABLE "ServerAddon" ADD CONSTRAINT "ServerAddon_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ServerAddon" ADD CONSTRAINT "ServerAddon_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "Server"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SsoToken" ADD CONSTRAINT "SsoToken_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Pool" ADD CONSTRAINT "Pool_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
