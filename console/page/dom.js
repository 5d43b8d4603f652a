/**
 * Building the page's DOM, and bringing the live DOM up to date with a newly built one. Each
 * update rebuilds a view from the latest reads and patches it into place: elements that stay keep
 * their identity, so a playing video keeps playing, a focused button keeps focus and an opened
 * <details> stays open. No markup is parsed from strings, so no value of the API becomes HTML.
 */

const SVG = 'http://www.w3.org/2000/svg';

/**
 * An element: `attributes` are set as attributes (null, undefined and false leave one out, true
 * sets it empty); children are nodes, strings, numbers, or arrays of them, falsy ones skipped.
 */
export function h(tag, attributes = {}, ...children) {
  return build(document.createElement(tag), attributes, children);
}

/** An SVG element, like h. */
export function s(tag, attributes = {}, ...children) {
  return build(document.createElementNS(SVG, tag), attributes, children);
}

function build(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false || child === '') continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Makes `parent`'s children look like `children`, reusing what it can. */
export function patch(parent, children) {
  const keyed = new Map();
  for (const child of parent.children) {
    const key = child.getAttribute('data-key');
    if (key !== null) keyed.set(key, child);
  }
  children.forEach((next, index) => {
    let current = parent.childNodes[index];
    const key = next.nodeType === Node.ELEMENT_NODE ? next.getAttribute('data-key') : null;
    const match = key === null ? undefined : keyed.get(key);
    if (match && match !== current) {
      parent.insertBefore(match, current ?? null);
      current = match;
    }
    if (current && sameKind(current, next)) update(current, next);
    else parent.insertBefore(next, current ?? null);
  });
  while (parent.childNodes.length > children.length) parent.lastChild.remove();
}

function sameKind(current, next) {
  if (current.nodeType !== next.nodeType || current.nodeName !== next.nodeName) return false;
  return current.nodeType !== Node.ELEMENT_NODE || current.getAttribute('data-key') === next.getAttribute('data-key');
}

function update(current, next) {
  if (current.nodeType !== Node.ELEMENT_NODE) {
    if (current.nodeValue !== next.nodeValue) current.nodeValue = next.nodeValue;
    return;
  }
  for (const { name } of [...current.attributes]) {
    // Whether a <details> is open is the person's choice, not the data's.
    if (name === 'open' && current.nodeName === 'DETAILS') continue;
    if (!next.hasAttribute(name)) current.removeAttribute(name);
  }
  for (const { name, value } of [...next.attributes]) {
    if (current.getAttribute(name) !== value) current.setAttribute(name, value);
  }
  patch(current, [...next.childNodes]);
}
