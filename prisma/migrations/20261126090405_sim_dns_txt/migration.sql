-- CreateTable
CREATE TABLE "SimDnsTxt" (
    "hostname" TEXT NOT NULL,
    "values" TEXT[],
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SimDnsTxt_pkey" PRIMARY KEY ("hostname")
);
