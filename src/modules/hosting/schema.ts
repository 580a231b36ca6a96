// The hosting area's GraphQL fields, one file per part of the product; imported in this order,
// which is the order of the operations in the printed schema, the OpenAPI document and MCP.
import './accounts.schema.ts';
import './panel.schema.ts';
import './security.schema.ts';
import './git.schema.ts';
import './files.schema.ts';
import './backups.schema.ts';
import './databases.schema.ts';
