/** Whether a response is a PDF: by its content type or by the file's own signature, never by the URL. */

const SIGNATURE = Buffer.from('%PDF-');
/** Readers accept the signature anywhere in the first kilobyte (some servers prepend junk). */
const SIGNATURE_WINDOW = 1024;
const TEXT_TYPES = /^(text\/|application\/(xhtml\+xml|xml|json|javascript)|application\/.+\+(json|xml)$)/;

function signatureAt(body: Uint8Array): number {
  return Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, SIGNATURE_WINDOW)).indexOf(SIGNATURE);
}

/**
 * `contentType` is the bare media type, lower case. A body that starts with the signature is a
 * PDF whatever it is labelled; one that has it further in only when not labelled as text (a
 * page about PDFs may quote the signature).
 */
export function isPdf(contentType: string, body: Uint8Array): boolean {
  if (contentType === 'application/pdf' || contentType === 'application/x-pdf') return true;
  const at = signatureAt(body);
  if (at < 0) return false;
  if (/^\s*$/.test(Buffer.from(body.buffer, body.byteOffset, at).toString('latin1'))) return true;
  return !TEXT_TYPES.test(contentType);
}

export function hasPdfSignature(body: Uint8Array): boolean {
  return signatureAt(body) >= 0;
}
