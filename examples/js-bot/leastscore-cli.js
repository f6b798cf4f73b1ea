// The leastscore command the tests run: `leastscore` from the PATH, or the program
// the LEASTSCORE variable names.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const [program, ...first] = process.env.LEASTSCORE ? [process.env.LEASTSCORE] : ["leastscore"];
const here = fileURLToPath(new URL(".", import.meta.url));

/** Runs `leastscore ...args` in this folder and returns what it printed; throws if it fails. */
export function leastscore(...args) {
  return execFileSync(program, [...first, ...args], { cwd: here, encoding: "utf8" });
}
