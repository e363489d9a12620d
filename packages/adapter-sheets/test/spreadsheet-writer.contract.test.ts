import { createFormulaEngine } from "@cellar/adapter-formulas";
import { spreadsheetWriterContract } from "@cellar/core/testing";
import { describe, expect, it } from "vitest";
import { createSpreadsheetReader, createSpreadsheetWriter } from "../src/index.js";

spreadsheetWriterContract(
  { describe, it, expect },
  {
    create: () => ({
      writer: createSpreadsheetWriter(),
      reader: createSpreadsheetReader({ loadEngine: async () => createFormulaEngine() }),
    }),
  },
);
