export {
  replaceContentFromFile,
  type UploadFileOptions,
  type UploadFileTarget,
  uploadFile,
} from "./upload-file.js";
