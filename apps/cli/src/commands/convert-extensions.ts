/**
 * `convert x.csv y.scbf --extensions`: the CSV converter writes the plain file, then the
 * footer is added in a second atomic pass (the file is valid SCBF at every moment).
 */
export async function addScbfExtensions(output: string): Promise<void> {
  const { extendScbfFile } = await import('@binscope/scbf/node');
  await extendScbfFile(output, output);
}
