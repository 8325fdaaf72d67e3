/**
 * Text the CLI did not write itself, before it knows any key: the command-line parser's own
 * errors echo what was typed (`unknown option '--apikey=svc_live_…'`, `unknown command
 * 'svc_live_…'`). Whatever is shaped like a secret there (an API key `<prefix>_live_…`, a
 * webhook secret `whsec_…`, a bearer token, credentials in a URL) shows as `[redacted]`.
 * The same shapes core redacts from its own messages (`util/redact`, not public: exporting it
 * from a subpath moves it into a shared chunk and costs the root bundle 4 B of its last 5);
 * runs stop at quotes and separators so the rest of the line reads as written.
 */
const SECRET_SHAPES =
  /(\bbearer\s+)[^\s"'\\,;<][^\s"'\\,;]*|(\b\w*?_live_)[^\s"'\\,;]+|(\bwhsec_)[^\s"'\\,;]+|(\b[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@"'\\]{1,256}@/gi;

export function redactSecretShapes(text: string): string {
  return text.replace(SECRET_SHAPES, (_match, bearer?: string, live?: string, whsec?: string, scheme?: string) =>
    scheme === undefined ? `${bearer ?? live ?? whsec}[redacted]` : `${scheme}[redacted]@`,
  );
}
