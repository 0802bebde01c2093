// Child process for the kill -9 durability test: appends from many concurrent writers through the
// built embedded adapter and prints one line per acknowledged append, until it is killed.
import { EmbeddedEventStore } from '../../../dist/embedded/embedded-event-store.js';

const [dataDir, category] = process.argv.slice(2);
const store = await EmbeddedEventStore.open({ dataDir });
process.stdout.write('ready\n');

async function writer(index) {
  for (let sequence = 0; ; sequence++) {
    const result = await store.appendToStream(`${category}-w${index}`, [{ type: 'Written', data: { index, sequence } }], {
      expectedRevision: sequence === 0 ? 'no_stream' : BigInt(sequence - 1),
    });
    process.stdout.write(`ack ${index} ${result.nextExpectedRevision}\n`);
  }
}
await Promise.all(Array.from({ length: 16 }, (_, index) => writer(index)));
