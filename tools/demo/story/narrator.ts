/** Prints the story step by step and counts what did not behave as the specs say. */
export class Narrator {
  private failures = 0;
  private step = 0;

  section(title: string): void {
    process.stdout.write(`\n== ${++this.step}. ${title}\n`);
  }

  say(text: string): void {
    process.stdout.write(`   ${text}\n`);
  }

  /** A check of what the specs require; a failed one is printed and makes the demo exit non-zero. */
  expect(ok: boolean, what: string): void {
    if (!ok) this.failures++;
    process.stdout.write(`   ${ok ? '✓' : '✗ UNEXPECTED:'} ${what}\n`);
  }

  get failed(): number {
    return this.failures;
  }
}
