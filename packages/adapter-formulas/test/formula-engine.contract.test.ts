import { formulaEngineContract } from "@cellar/core/testing";
import { describe, expect, it } from "vitest";
import { createFormulaEngine } from "../src/index.js";

formulaEngineContract({ describe, it, expect }, { create: () => ({ engine: createFormulaEngine() }) });
