// Attribute, style and text writes that leave a value already there alone. A
// write of the same value still makes the browser lay the element out and
// paint it again; a map redrawn at every step of a drag writes thousands of
// values and changes a few.

import type { BaseType, Selection } from "d3-selection";

export type AttrValue = string | number | boolean | null | undefined;

/** Sets `name` on `el` to `value` (removes it for null or undefined) unless it holds that already. */
export function setAttr(el: Element, name: string, value: AttrValue): void {
  if (value === null || value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
    return;
  }
  const s = String(value);
  if (el.getAttribute(name) !== s) el.setAttribute(name, s);
}

/** Sets an inline style property (a custom property too) unless it holds that value already. */
export function setStyle(el: Element, name: string, value: string | number): void {
  const style = (el as HTMLElement | SVGElement).style;
  const s = String(value);
  if (style.getPropertyValue(name) !== s) style.setProperty(name, s);
}

/** Sets an element's text unless it reads so already. */
export function setTextOf(el: Element, value: string): void {
  if (el.textContent !== value) el.textContent = value;
}

/** `selection.attr` that writes only the values that changed (a constant, or one per datum). */
export function attr<E extends BaseType, D, P extends BaseType, PD>(
  sel: Selection<E, D, P, PD>,
  name: string,
  value: AttrValue | ((d: D, i: number) => AttrValue),
): Selection<E, D, P, PD> {
  return sel.each(function (d, i) {
    if (this instanceof Element) setAttr(this, name, typeof value === "function" ? value(d, i) : value);
  });
}

/** `selection.style` that writes only the values that changed. */
export function style<E extends BaseType, D, P extends BaseType, PD>(
  sel: Selection<E, D, P, PD>,
  name: string,
  value: string | number | ((d: D, i: number) => string | number),
): Selection<E, D, P, PD> {
  return sel.each(function (d, i) {
    if (this instanceof Element) setStyle(this, name, typeof value === "function" ? value(d, i) : value);
  });
}

/** `selection.text` that writes only the texts that changed. */
export function text<E extends BaseType, D, P extends BaseType, PD>(
  sel: Selection<E, D, P, PD>,
  value: string | ((d: D, i: number) => string),
): Selection<E, D, P, PD> {
  return sel.each(function (d, i) {
    if (this instanceof Element) setTextOf(this, typeof value === "function" ? value(d, i) : value);
  });
}
