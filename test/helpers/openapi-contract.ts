import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Checks an answer of /v1 against the OpenAPI document, the way Prism's validating proxy would:
 * the status must be declared for the operation, the content type must be one its response
 * declares (or none, when it declares no content), the body must validate against the declared
 * schema (Ajv, JSON Schema 2020-12), and every header outside a small generic allowlist must be
 * declared for that response, its value valid against the header's schema.
 */

/** Headers of HTTP itself, never an API's to declare. ETag is not here: it is declared where sent. */
const GENERIC_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'transfer-encoding',
  'vary',
]);

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

// The parts of an OpenAPI document the check reads.
type Ref = { $ref: string };
type Header = { schema?: { type?: string } };
type Response = { headers?: Record<string, Header | Ref>; content?: Record<string, { schema?: { format?: string } }> };
type Reusable = { responses: Response; headers: Header };
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Response | Ref> }>>;
  components: { schemas: object } & { [K in keyof Reusable]?: Record<string, Reusable[K]> };
};
const isRef = (value: object): value is Ref => '$ref' in value;

const DEFS = 'https://contract.test/openapi.json';

export function openApiContract(doc: Doc) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, keywords: ['example', 'discriminator'] }); // discriminator: OpenAPI's annotation; oneOf decides
  addFormats.default(ajv);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  const local = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${DEFS}#/$defs/`));
  ajv.addSchema({ $id: DEFS, $defs: local(doc.components.schemas) });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (schema: unknown): ValidateFunction => {
    const key = JSON.stringify(schema);
    let v = compiled.get(key);
    if (!v) {
      v = ajv.compile(local(schema));
      compiled.set(key, v);
    }
    return v;
  };
  const resolve = <K extends keyof Reusable>(value: Reusable[K] | Ref | undefined, kind: K): Reusable[K] | undefined =>
    value && isRef(value) ? doc.components[kind]?.[value.$ref.replace(`#/components/${kind}/`, '')] : value;

  /** The problems of one answer to `METHOD template` (the document's path, `/servers/{id}`); empty when it tells the truth. */
  function check(method: string, template: string, answer: Answer): string[] {
    const where = `${method} ${template} → ${answer.status}`;
    const operation = doc.paths[template]?.[method.toLowerCase()];
    if (!operation) return [`${where}: no such operation in the document`];
    const response = resolve(operation.responses[String(answer.status)], 'responses');
    if (!response) return [`${where}: status not declared (body ${answer.text.slice(0, 200)})`];
    const problems: string[] = [];
    const declared = new Map(
      Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), resolve(h, 'headers')]),
    );
    answer.headers.forEach((value, name) => {
      if (GENERIC_HEADERS.has(name)) return;
      const header = declared.get(name);
      if (!header) {
        problems.push(`${where}: header ${name} not declared`);
        return;
      }
      const typed = header.schema?.type === 'integer' ? Number(value) : value;
      const validate = validator(header.schema ?? {});
      if (!validate(typed))
        problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
    });
    const type = answer.headers.get('content-type');
    if (!response.content) {
      if (answer.text || type) problems.push(`${where}: a body (${type}) where none is declared`);
      return problems;
    }
    if (!type) return [...problems, `${where}: no Content-Type`];
    const media = response.content[type.split(';')[0].trim().toLowerCase()];
    if (!media)
      return [...problems, `${where}: content type ${type} not declared (${Object.keys(response.content).join(', ')})`];
    if (media.schema?.format === 'binary') return problems;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...problems, `${where}: body is not JSON: ${answer.text.slice(0, 100)}`];
    }
    const validate = validator(media.schema ?? {});
    if (!validate(body))
      problems.push(`${where}: body: ${ajv.errorsText(validate.errors)} in ${answer.text.slice(0, 300)}`);
    return problems;
  }

  /** Problems of a value against a schema of the document (`{ $ref: '#/components/schemas/X' }`). */
  function validate(schema: unknown, value: unknown): string[] {
    const v = validator(schema);
    return v(value) ? [] : [ajv.errorsText(v.errors)];
  }

  return { check, validate };
}

/** `/servers/:id` → `/servers/{id}`: the document's path of a route. */
export const templateOf = (path: string) => path.replace(/:(\w+)/g, '{$1}');
