import { EXIT } from './exit-codes';
import { createIo } from './io';
import { runCli } from './program';

const io = createIo();
runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
    // Ctrl-C: out now, whatever is still in flight (a submit past its send point runs to its
    // answer in core; its key is on screen, and a resubmit with it is never billed twice). A
    // submit stopped in the gate has nothing in flight: its open connections need no waiting for.
    if (code === EXIT.interrupted || code === EXIT.stoppedUnsent) process.exit(code);
  },
  () => {
    process.exitCode = 70;
  },
);
