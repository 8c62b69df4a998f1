// Checks a client's elicitation answer against the form we asked with, for the SDK's Server (its jsonSchemaValidator).
// MCP restricts a form to a flat object of primitive fields, so this covers that subset exactly instead of loading
// ajv (a JSON Schema compiler that costs start-up time) for it; a schema outside the subset is an error, never a pass.
/** A form's JSON Schema as the SDK hands it over: an object schema whose properties are the fields. */
type JsonSchemaType = { type?: unknown; properties?: unknown; required?: unknown };
/** The SDK's validator result (its jsonSchemaValidator contract, which src/mcp passes this to). */
type JsonSchemaValidatorResult<T> =
  | { valid: true; data: T; errorMessage: undefined }
  | { valid: false; data: undefined; errorMessage: string };

type Field = Record<string, unknown>;

const FORMATS: Record<string, (value: string) => boolean> = {
  email: (value) => /^[^\s@]+@[^\s@]+$/.test(value),
  uri: (value) => URL.canParse(value) && /^[a-z][a-z0-9+.-]*:/i.test(value),
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)),
  'date-time': (value) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value)),
};

/** The values a single- or multi-select field allows (enum, or oneOf/anyOf of consts), if it is one. */
function choices(field: Field): unknown[] | undefined {
  if (Array.isArray(field.enum)) return field.enum;
  const options = field.oneOf ?? field.anyOf;
  return Array.isArray(options) ? options.map((option) => (option as Field).const) : undefined;
}

function checkString(value: unknown, field: Field): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  const allowed = choices(field);
  if (allowed && !allowed.includes(value)) return `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  if (typeof field.minLength === 'number' && value.length < field.minLength)
    return `must have at least ${field.minLength} characters`;
  if (typeof field.maxLength === 'number' && value.length > field.maxLength)
    return `must have at most ${field.maxLength} characters`;
  if (typeof field.format === 'string') {
    const check = FORMATS[field.format];
    if (!check) throw new Error(`unsupported string format '${field.format}'`);
    if (!check(value)) return `must be a valid ${field.format}`;
  }
  return undefined;
}

function checkNumber(value: unknown, field: Field): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
  if (field.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
  if (typeof field.minimum === 'number' && value < field.minimum) return `must be at least ${field.minimum}`;
  if (typeof field.maximum === 'number' && value > field.maximum) return `must be at most ${field.maximum}`;
  return undefined;
}

function checkArray(value: unknown, field: Field): string | undefined {
  if (!Array.isArray(value)) return 'must be an array';
  const allowed = choices((field.items ?? {}) as Field);
  if (!allowed) throw new Error('a multi-select field needs items with enum or anyOf');
  const wrong = value.find((item) => !allowed.includes(item));
  if (wrong !== undefined)
    return `has ${JSON.stringify(wrong)}, not one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  if (typeof field.minItems === 'number' && value.length < field.minItems)
    return `must have at least ${field.minItems} items`;
  if (typeof field.maxItems === 'number' && value.length > field.maxItems)
    return `must have at most ${field.maxItems} items`;
  return undefined;
}

/** What is wrong with one field's value, or undefined when it fits. */
function checkField(value: unknown, field: Field): string | undefined {
  switch (field.type) {
    case 'string':
      return checkString(value, field);
    case 'number':
    case 'integer':
      return checkNumber(value, field);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'array':
      return checkArray(value, field);
    default:
      throw new Error(
        `unsupported field type ${JSON.stringify(field.type)} (an elicitation form has primitive fields only)`,
      );
  }
}

function validateForm<T>(schema: JsonSchemaType, input: unknown): JsonSchemaValidatorResult<T> {
  if (schema.type !== 'object') throw new Error('an elicitation form schema must be of type object');
  const invalid = (errorMessage: string): JsonSchemaValidatorResult<T> => ({
    valid: false,
    data: undefined,
    errorMessage,
  });
  if (!input || typeof input !== 'object' || Array.isArray(input)) return invalid('the answer must be an object');
  const answer = input as Record<string, unknown>;
  const fields = (schema.properties ?? {}) as Record<string, Field>;
  for (const name of (schema.required ?? []) as string[]) {
    if (answer[name] === undefined) return invalid(`${name} is required`);
  }
  for (const [name, field] of Object.entries(fields)) {
    if (answer[name] === undefined) continue;
    const problem = checkField(answer[name], field);
    if (problem) return invalid(`${name} ${problem}`);
  }
  return { valid: true, data: input as T, errorMessage: undefined };
}

export const elicitationFormValidator = {
  getValidator<T>(schema: JsonSchemaType) {
    return (input: unknown) => validateForm<T>(schema, input);
  },
};
