import { spreadsheetReaderContract } from "@cellar/core/testing";
import { describe, expect, it } from "vitest";
import { createSpreadsheetReader } from "../src/index.js";

spreadsheetReaderContract({ describe, it, expect }, { create: () => ({ reader: createSpreadsheetReader() }) });
