// The sandbox's error responses: one throwable type carrying each body shape the service sends.

/** Thrown by handlers and helpers; the router turns it into the response. Never carries a stack to the client. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'object' && body !== null ? JSON.stringify(body) : String(body));
  }
}

/** {"message": "404 Project Not Found"}; without a resource name, {"message": "404 Not Found"}. */
export function notFound(resource?: string): HttpError {
  return new HttpError(404, { message: resource ? `404 ${resource} Not Found` : '404 Not Found' });
}

/**
 * A record looked up by id that is not there (or not there for this caller), as the service's framework answers
 * it: {"message": "404 Not found"}.
 */
export function recordNotFound(): HttpError {
  return new HttpError(404, { message: '404 Not found' });
}

export function unauthorized(): HttpError {
  return new HttpError(401, { message: '401 Unauthorized' });
}

/** {"message": "403 Forbidden"}, or "403 Forbidden - <reason>" when the reason helps the caller. */
export function forbidden(reason?: string): HttpError {
  return new HttpError(403, { message: reason ? `403 Forbidden - ${reason}` : '403 Forbidden' });
}

/** A framework (parameter) error: {"error": "title is missing"}. */
export function paramError(error: string): HttpError {
  return new HttpError(400, { error });
}

/** A model validation error: {"message": {"title": ["can't be blank"]}}. */
export function validationError(fields: Record<string, string[]>, status = 400): HttpError {
  return new HttpError(status, { message: fields });
}

/** A plain message error: {"message": "Release already exists"}. */
export function messageError(status: number, message: string): HttpError {
  return new HttpError(status, { message });
}

/** A failure with a machine-readable code: {"message": "…", "error_code": "conflict"}. */
export function codedError(status: number, message: string, errorCode: string): HttpError {
  return new HttpError(status, { message, error_code: errorCode });
}

/** SCIM errors follow RFC 7644 §3.12. */
export function scimError(status: number, detail: string): HttpError {
  return new HttpError(
    status,
    { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], detail, status: String(status) },
    { 'content-type': 'application/scim+json' },
  );
}
