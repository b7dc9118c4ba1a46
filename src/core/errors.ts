/**
 * Errors are values. Every failure a caller can cause is an AppError with a code
 * from this closed set; the set maps once to HTTP status here and once to an MCP
 * tool error where tools are registered (mcp/tool-registration.ts). Thrown exceptions are reserved for programmer
 * error.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  malformed_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  upstream_unreachable: 502,
  not_configured: 503,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface AppError {
  readonly code: ErrorCode;
  readonly message: string;
  /** Every individual problem, when there is more than one (validation). */
  readonly errors?: readonly string[];
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(code: ErrorCode, message: string, errors?: readonly string[]): { ok: false; error: AppError } {
  return { ok: false, error: errors ? { code, message, errors } : { code, message } };
}

export function statusOf(error: AppError): (typeof ERROR_STATUS)[ErrorCode] {
  return ERROR_STATUS[error.code];
}

/** The JSON body every HTTP error carries. */
export function errorBody(error: AppError): { code: ErrorCode; message: string; errors?: readonly string[] } {
  return error.errors
    ? { code: error.code, message: error.message, errors: error.errors }
    : { code: error.code, message: error.message };
}
