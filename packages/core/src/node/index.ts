/** Node-only parts of core: local files and folders, atomic writes. Never imported by browser code. */
export {
  AtomicFile,
  makeScratchDir,
  removeStaleTemps,
  writeDirectoryAtomic,
  writeFileAtomic,
} from './atomic.js';
export { parseAwsIni, resolveS3Settings } from './aws.js';
export { NodeDirectory, openDirectory } from './directory.js';
export { describeFsError, NodeFileSource, openFile } from './file.js';
export { openPath } from './open.js';
