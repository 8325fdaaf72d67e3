/**
 * The CLI's own styling, kept: SGR colours (`ESC[…m`) and the progress line's clear
 * (`\r ESC[2K`). Everything else that steers a terminal is not: other escape sequences (OSC
 * window titles and links, cursor moves, screen clears), the other C0 and all C1 controls (a
 * lone `\r` that would overwrite a line), and bidi overrides that reorder what is shown.
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this removes.
  /(\r\x1b\[2K)|\x1b(?!\[[0-9;]*m)|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe to write to a terminal. The lines the CLI writes carry what the service answered (error
 * messages, statuses, names), and an answer is hostile until checked: each unsafe character shows
 * as U+FFFD instead of acting. Tabs and newlines pass.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (_match, clearLine: string | undefined) => clearLine ?? '\uFFFD');
}
