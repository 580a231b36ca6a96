import { Kind, visit, type DocumentNode } from 'graphql';
import { badRequest } from '../../../errors.ts';
import { type OperationCall, refused } from '../call.ts';

/**
 * Text the database cannot store is refused up front: PostgreSQL (and PGlite) reject the NUL
 * character (U+0000) in text and jsonb, which would otherwise surface as a 500 from deep inside
 * a service. Checked on every variable and string literal, so REST (path, query and body),
 * GraphQL and MCP answer the same 400 naming the argument.
 */
export function textInput(call: OperationCall): void {
  const where = nulIn(call.variables, '') ?? nulInDocument(call.compiled.document);
  if (where !== undefined)
    refused(
      call,
      badRequest(`${where || 'The request'} must not contain the NUL character (U+0000).`, where || undefined),
    );
}

/** The path of the first string holding U+0000 (`jobs[0].command`), or undefined. */
function nulIn(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = nulIn(value[i], `${path}[${i}]`);
      if (hit !== undefined) return hit;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return path ? `${path}.${k}` : k;
      const hit = nulIn(v, path ? `${path}.${k}` : k);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

/** Documents are immutable and each is compiled once: each is visited once. */
const documentVerdicts = new WeakMap<DocumentNode, string | undefined>();

function nulInDocument(document: DocumentNode): string | undefined {
  if (documentVerdicts.has(document)) return documentVerdicts.get(document);
  let hit: string | undefined;
  visit(document, {
    [Kind.STRING]: (node) => {
      if (hit === undefined && node.value.includes('\u0000')) hit = 'A string in the query';
    },
  });
  documentVerdicts.set(document, hit);
  return hit;
}
