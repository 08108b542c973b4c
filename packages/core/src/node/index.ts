/** Node-only parts of core: local files and folders, atomic writes. Never imported by browser code. */
export {
  AtomicFile,
  assertReplaceable,
  type DirectoryWriteOptions,
  makeScratchDir,
  removeStaleTemps,
  writeDirectoryAtomic,
  writeFileAtomic,
} from './atomic.js';
export { parseAwsIni, resolveS3Settings } from './aws.js';
export { NodeDirectory, openDirectory } from './directory.js';
export { describeFsError, NodeFileSource, openFile, openRegularFile } from './file.js';
export { openPath } from './open.js';
export { fileScratch, folderSink } from './sinks.js';
export { lockTarget, recoverInterruptedReplace } from './replace.js';
export {
  type DirectoryOutput,
  type Output,
  type OutputOptions,
  openDirectoryOutput,
  openOutput,
} from './output.js';
export {
  removeTempsOnSignals,
  removeTrackedTemps,
  runTrackedCleanups,
  trackCleanup,
  trackTemp,
  untrackTemp,
} from './temps.js';
export { abortStaleUploads, journalDir } from './upload-journal.js';
