export { EXCEL_FUNCTIONS_UNCOMPUTED, VOLATILE_FUNCTIONS } from "./excel-functions.js";
export { createFormulaEngine, FORMULA_ENGINE_NAME } from "./formula-engine.js";
export { moveReferences } from "./formula-text.js";
