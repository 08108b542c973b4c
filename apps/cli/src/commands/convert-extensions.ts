/**
 * `convert x.csv y.scbf --extensions / --nulls / --dictionary auto`: the CSV converter writes
 * the plain file, then a second atomic pass adds the footer (and, with --nulls, retypes the
 * columns whose only non-numeric cells were empty; with --dictionary auto, dictionary-encodes
 * utf8 columns with few distinct values). The file is valid SCBF at every moment.
 * Returns the columns that got nulls / dictionaries (undefined without either option).
 */
export async function addScbfExtensions(
  output: string,
  options: { extensions?: boolean; nulls?: boolean; dictionary?: string; level?: number; zlib?: string },
): Promise<{ nullColumns: string[]; dictionaryColumns: string[] } | undefined> {
  const dictionary = options.dictionary === 'auto';
  if (!options.extensions && !options.nulls && !dictionary) return undefined;
  const { extendScbfFile, rewriteScbfFile } = await import('@binscope/scbf/node');
  if (!options.nulls && !dictionary) {
    await extendScbfFile(output, output);
    return undefined;
  }
  return rewriteScbfFile(output, output, {
    nulls: options.nulls === true,
    dictionary: dictionary ? 'auto' : 'off',
    // The rewritten blocks are deflated as the converter deflated the first ones.
    level: options.level,
    pythonZlib: options.zlib === 'python',
  });
}
