/**
 * The code of an error answer by its HTTP status alone: what serve's answers carry when the
 * catalog (spec/errors.ts) has nothing more precise, and what a --json error document of
 * the command line carries for an error with a status. Apart from the spec, so that rendering an
 * error loads nothing of it.
 */
const CODES_OF_STATUSES: ReadonlyMap<number, string> = new Map([
  [400, 'BAD_REQUEST'],
  [401, 'UNAUTHORIZED'],
  [402, 'PAYMENT_REQUIRED'],
  [403, 'FORBIDDEN'],
  [404, 'NOT_FOUND'],
  [405, 'METHOD_NOT_ALLOWED'],
  [408, 'REQUEST_TIMEOUT'],
  [409, 'CONFLICT'],
  [413, 'PAYLOAD_TOO_LARGE'],
  [414, 'URI_TOO_LONG'],
  [415, 'UNSUPPORTED_MEDIA_TYPE'],
  [422, 'UNPROCESSABLE_ENTITY'],
  [429, 'RATE_LIMIT_EXCEEDED'],
  [431, 'REQUEST_HEADER_FIELDS_TOO_LARGE'],
  [500, 'INTERNAL_SERVER_ERROR'],
  [502, 'BAD_GATEWAY'],
  [503, 'SERVICE_UNAVAILABLE'],
  [504, 'GATEWAY_TIMEOUT'],
]);

export function codeOfStatus(status: number): string {
  return CODES_OF_STATUSES.get(status) ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
}
