/**
 * `convert x.csv y.scbf --extensions / --nulls`: the CSV converter writes the plain file,
 * then a second atomic pass adds the footer (and, with --nulls, retypes the columns whose
 * only non-numeric cells were empty). The file is valid SCBF at every moment.
 * Returns the columns that got nulls (undefined without --nulls).
 */
export async function addScbfExtensions(
  output: string,
  options: { extensions?: boolean; nulls?: boolean },
): Promise<string[] | undefined> {
  if (!options.extensions && !options.nulls) return undefined;
  const { extendScbfFile, nullableScbfFile } = await import('@binscope/scbf/node');
  if (!options.nulls) {
    await extendScbfFile(output, output);
    return undefined;
  }
  return (await nullableScbfFile(output, output)).nullColumns;
}
