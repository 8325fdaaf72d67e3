import { EXIT } from './exit-codes';
import { createIo } from './io';
import { runCli } from './program';

const io = createIo();
runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
    // Ctrl-C: out now, whatever is still in flight (a submit past its send point runs to its
    // answer in core; its key is on screen, and a resubmit with it is never billed twice).
    if (code === EXIT.interrupted) process.exit(code);
  },
  () => {
    process.exitCode = 70;
  },
);
