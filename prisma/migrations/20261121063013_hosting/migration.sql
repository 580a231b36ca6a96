-- CreateTable
CREATE TABLE "HostingAccount" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "productId" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'provisioning',
    "username" TEXT NOT NULL,
    "ip" TEXT NOT NULL,
    "phpVersion" TEXT NOT NULL,
    "customDomain" TEXT,
    "customDomainStatus" TEXT,
    "customDomainAttachedAt" TIMESTAMPTZ(3),
    "certStatus" TEXT NOT NULL DEFAULT 'pending',
    "certDomains" TEXT[],
    "certIssuedAt" TIMESTAMPTZ(3),
    "certExpiresAt" TIMESTAMPTZ(3),
    "certError" TEXT,
    "wafAccessUntil" TIMESTAMPTZ(3),
    "sshAccessEnabled" BOOLEAN NOT NULL DEFAULT false,
    "sshAccessEnabledAt" TIMESTAMPTZ(3),
    "provisionedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "HostingAccount_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProviderHosting" (
    "hostingId" TEXT NOT NULL,
    "node" TEXT NOT NULL,
    "provisioningLog" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProviderHosting_pkey" PRIMARY KEY ("hostingId")
);

-- CreateTable
CREATE TABLE "SimDnsRecord" (
    "hostname" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SimDnsRecord_pkey" PRIMARY KEY ("hostname")
);

-- CreateTable
CREATE TABLE "HostingDatabase" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "hostingId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HostingDatabase_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HostingCronJob" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "hostingId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "schedule" TEXT NOT NULL,
    "command" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HostingCronJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HostingProtectedDir" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "hostingId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "basicUser" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "HostingProtectedDir_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HostingBackup" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "hostingId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'available',
    "sizeBytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "databases" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HostingBackup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HostingGitDeploy" (
    "hostingId" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "repoUrl" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "subdir" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "commitSha" TEXT,
    "commitMessage" TEXT,
    "lastDeployedAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "webhookEnabled" BOOLEAN NOT NULL DEFAULT false,
    "webhookSecretEnc" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "HostingGitDeploy_pkey" PRIMARY KEY ("hostingId")
);

-- CreateTable
CREATE TABLE "HostingSshSession" (
    "id" TEXT NOT NULL,
    "accountId" UUID NOT NULL,
    "hostingId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HostingSshSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "HostingAccount_domain_key" ON "HostingAccount"("domain");

-- CreateIndex
CREATE UNIQUE INDEX "HostingAccount_username_key" ON "HostingAccount"("username");

-- CreateIndex
CREATE UNIQUE INDEX "HostingAccount_customDomain_key" ON "HostingAccount"("customDomain");

-- CreateIndex
CREATE INDEX "HostingAccount_accountId_createdAt_idx" ON "HostingAccount"("accountId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "HostingDatabase_name_key" ON "HostingDatabase"("name");

-- CreateIndex
CREATE INDEX "HostingDatabase_accountId_idx" ON "HostingDatabase"("accountId");

-- CreateIndex
CREATE INDEX "HostingDatabase_hostingId_idx" ON "HostingDatabase"("hostingId");

-- CreateIndex
CREATE INDEX "HostingCronJob_accountId_idx" ON "HostingCronJob"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "HostingCronJob_hostingId_position_key" ON "HostingCronJob"("hostingId", "position");

-- CreateIndex
CREATE INDEX "HostingProtectedDir_accountId_idx" ON "HostingProtectedDir"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "HostingProtectedDir_hostingId_path_key" ON "HostingProtectedDir"("hostingId", "path");

-- CreateIndex
CREATE INDEX "HostingBackup_accountId_idx" ON "HostingBackup"("accountId");

-- CreateIndex
CREATE INDEX "HostingBackup_hostingId_createdAt_idx" ON "HostingBackup"("hostingId", "createdAt");

-- CreateIndex
CREATE INDEX "HostingGitDeploy_accountId_idx" ON "HostingGitDeploy"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "HostingSshSession_tokenHash_key" ON "HostingSshSession"("tokenHash");

-- CreateIndex
CREATE INDEX "HostingSshSession_accountId_idx" ON "HostingSshSession"("accountId");

-- CreateIndex
CREATE INDEX "HostingSshSession_hostingId_idx" ON "HostingSshSession"("hostingId");

-- AddForeignKey
ALTER TABLE "HostingAccount" ADD CONSTRAINT "HostingAccount_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProviderHosting" ADD CONSTRAINT "ProviderHosting_hostingId_fkey" FOREIGN KEY ("hostingId") REFERENCES "HostingAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HostingDatabase" ADD CONSTRAINT "HostingDatabase_hostingId_fkey" FOREIGN KEY ("hostingId") REFERENCES "HostingAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HostingCronJob" ADD CONSTRAINT "HostingCronJob_hostingId_fkey" FOREIGN KEY ("hostingId") REFERENCES "HostingAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HostingProtectedDir" ADD CONSTRAINT "HostingProtectedDir_hostingId_fkey" FOREIGN KEY ("hostingId") REFERENCES "HostingAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HostingBackup" ADD CONSTRAINT "HostingBackup_hostingId_fkey" FOREIGN KEY ("hostingId") REFERENCES "HostingAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HostingGitDeploy" ADD CONSTRAINT "HostingGitDeploy_hostingId_fkey" FOREIGN KEY ("hostingId") REFERENCES "HostingAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HostingSshSession" ADD CONSTRAINT "HostingSshSession_hostingId_fkey" FOREIGN KEY ("hostingId") REFERENCES "HostingAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;
