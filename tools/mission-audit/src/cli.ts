import { main } from './main.js';

/** Writes a line, waiting when stdout's buffer is full (an export can be millions of lines). */
function writeLine(line: string): Promise<void> | void {
  if (process.stdout.write(`${line}\n`)) return;
  return new Promise((resolve) => process.stdout.once('drain', () => resolve()));
}

process.exitCode = await main(process.argv.slice(2), writeLine, (line) => process.stderr.write(`${line}\n`));
