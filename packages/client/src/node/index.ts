export { type UploadFileOptions, type UploadFileTarget, uploadFile } from "./upload-file.js";
