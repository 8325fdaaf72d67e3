/** The service always sends `Content-Type: application/json` (charset parameters allowed). */
export function isJsonContentType(value: string | null | undefined): boolean {
  if (!value) return false;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
