-- CreateTable
CREATE TABLE "ProviderServerLogEntry" (
    "id" BIGSERIAL NOT NULL,
    "serverId" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "line" TEXT NOT NULL,

    CONSTRAINT "ProviderServerLogEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ProviderServerLogEntry_serverId_id_idx" ON "ProviderServerLogEntry"("serverId", "id");

-- AddForeignKey
ALTER TABLE "ProviderServerLogEntry" ADD CONSTRAINT "ProviderServerLogEntry_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "ProviderServer"("serverId") ON DELETE CASCADE ON UPDATE CASCADE;

-- Carry the log over (added to the engine's statements, which are otherwise as generated; the
-- column is dropped after this step instead of first): each entry of the text was
-- "<ISO time> <line>" ending in a newline, and a line may itself hold a newline, so entries
-- split where a newline precedes a timestamp. Rows are inserted in the text's order, so the
-- ids keep it. Text that does not start with a timestamp keeps the server's creation time.
INSERT INTO "ProviderServerLogEntry" ("serverId", "at", "line")
SELECT s."serverId",
       CASE WHEN e.entry ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ' THEN split_part(e.entry, ' ', 1)::timestamptz ELSE s."createdAt" END,
       CASE WHEN e.entry ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ' THEN substr(e.entry, strpos(e.entry, ' ') + 1) ELSE e.entry END
FROM "ProviderServer" s
CROSS JOIN LATERAL regexp_split_to_table(rtrim(s."provisioningLog", E'\n'), E'\n(?=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z )') WITH ORDINALITY AS e(entry, n)
WHERE e.entry <> ''
ORDER BY s."serverId", e.n;

-- AlterTable
ALTER TABLE "ProviderServer" DROP COLUMN "provisioningLog";
