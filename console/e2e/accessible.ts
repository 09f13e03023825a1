// The accessibility check the browser test runs on every page it shows.

import type { Page } from "playwright-core";
import { check } from "./session.js";

/** Every control has an accessible name, and text keeps a contrast of 4.5:1 (3:1 when large). */
export async function accessible(p: Page, where: string): Promise<void> {
  const problems = await p.evaluate(() => {
    const out: string[] = [];
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
    };
    for (const el of Array.from(document.querySelectorAll("input, select, textarea, button, a[href]"))) {
      if (!visible(el)) continue;
      const labelled =
        (el as HTMLInputElement).labels?.length ||
        el.getAttribute("aria-label") ||
        el.getAttribute("aria-labelledby") ||
        ((el.tagName === "BUTTON" || el.tagName === "A") && (el.textContent ?? "").trim() !== "");
      if (!labelled) out.push(`unnamed ${el.outerHTML.slice(0, 120)}`);
    }
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = (c: number[]) => {
      const [r, g, b] = c.slice(0, 3).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
    };
    const background = (el: Element | null): number[] => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || (c[3] ?? 0) > 0) return c;
      }
      return [255, 255, 255];
    };
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const own = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? "").trim() !== "");
      if (!own || !visible(el) || (el as HTMLButtonElement).disabled || el.closest("[disabled], noscript")) continue;
      const style = getComputedStyle(el);
      const [a, b] = [lum(rgb(style.color)), lum(background(el))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`contrast ${ratio.toFixed(2)} of "${(el.textContent ?? "").trim().slice(0, 40)}"`);
    }
    return out;
  });
  check(problems.length === 0, `${where}: ${problems.slice(0, 5).join("; ")}`);
}
