// The hosting area's GraphQL fields, one file per part of the product. The printed schema, the
// OpenAPI document and the MCP tools do not depend on the order they are imported in.
import './accounts.schema.ts';
import './panel.schema.ts';
import './security.schema.ts';
import './git.schema.ts';
import './files.schema.ts';
import './backups.schema.ts';
import './databases.schema.ts';
