/**
 * Orders strings by their UTF-16 code units: the same on every machine whatever its locale,
 * and free, where `localeCompare` first builds an ICU collator (about 5 ms of a command's
 * start-up). Right for ISO timestamps, URLs and ids; file names are compared case-blind first,
 * so that `b.yaml` still comes after `A.yaml`.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareFileNames(a: string, b: string): number {
  return compareText(a.toLowerCase(), b.toLowerCase()) || compareText(a, b);
}
