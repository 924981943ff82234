/** The ports a listener takes, the same for the commands' port flags (cli/main.ts) and the port settings: 0 asks the system for a free one. */
import type { WholeNumberRange } from "../../../core/whole-number.js";

export const TCP_PORT_RANGE: WholeNumberRange = { minimum: 0, maximum: 65535, why: "a TCP port; 0 picks a free one" };
