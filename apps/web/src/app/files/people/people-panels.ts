/** The dialogs about a file's people and history, one chunk loaded on first use (files/panels.tsx). */
export { ActivityDialog } from "./activity-dialog.js";
export { ShareDialog } from "./share-dialog.js";
