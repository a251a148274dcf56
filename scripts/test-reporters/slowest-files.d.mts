/** Types of slowest-files.mjs, a node:test reporter (JavaScript, so that `node --test` can load it too). */
export default function slowestFiles(source: AsyncIterable<unknown>): AsyncGenerator<string>
