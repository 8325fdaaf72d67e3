import { createIo } from './io';
import { runCli } from './program';

const io = createIo();
runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 70;
  },
);
