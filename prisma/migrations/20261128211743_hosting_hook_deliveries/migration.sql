-- CreateTable
CREATE TABLE "HostingHookDelivery" (
    "hostingId" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "HostingHookDelivery_pkey" PRIMARY KEY ("hostingId","deliveryId")
);

-- CreateIndex
CREATE INDEX "HostingHookDelivery_expiresAt_idx" ON "HostingHookDelivery"("expiresAt");

-- AddForeignKey
ALTER TABLE "HostingHookDelivery" ADD CONSTRAINT "HostingHookDelivery_hostingId_fkey" FOREIGN KEY ("hostingId") REFERENCES "HostingGitDeploy"("hostingId") ON DELETE CASCADE ON UPDATE CASCADE;
