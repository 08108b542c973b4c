/** A `.wasm` file imported as base64 text: tsup (and the tests' vitest plugin) inline it. */
declare module '*.wasm' {
  const base64: string;
  export default base64;
}
