import { runStdio } from './stdio';

const HELP = `mediagen-mcp: the MediaGen MCP server over stdio (for Claude Desktop, Cursor, VS Code...).

Environment:
  MEDIAGEN_API_KEY, MEDIAGEN_BASE_URL  the service (neither: the local emulator, started if none answers)
  MEDIAGEN_MCP_DB                      the ledger's SQLite file (default ~/.mediagen/mcp.sqlite)
  MEDIAGEN_MCP_SPEND_CAP               credits one session may commit (default: no cap)
  MEDIAGEN_MCP_CONFIRM_ABOVE           ask the person before a generate above this many credits (default 100)
`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(HELP);
} else {
  runStdio().catch((error: unknown) => {
    // The message only: the stack adds nothing for a person, and a message never holds the key.
    process.stderr.write(`mediagen-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
