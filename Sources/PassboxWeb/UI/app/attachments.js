// An item's files (LB-1, LB-6–9): tiles with a thumbnail of each image (made and kept encrypted by the
// agent), a full-size viewer with zoom and pan, a menu on each tile (right-click or a long press) to view,
// download or delete, an upload (or a photo from the camera), and a download that says first that the file
// leaves the vault.
import { call, fileBase64, UPLOAD_LIMIT } from './api.js';
import { t } from './i18n.js';
import { h, icon, button, toast, dialog, announce, saveFile } from './dom.js';
import { report, openItem } from './app.js';

// A file larger than one request goes up in parts of 2 MiB (the agent keeps them in memory, 64 MiB at most).
const PART = 2 << 20;
const FILE_LIMIT = 64 << 20;

// Object URLs of the previews on screen, revoked when the item is left.
let previews = [];

export function releasePreviews() {
  for (const url of previews) URL.revokeObjectURL(url);
  previews = [];
}

function sizeText(bytes) {
  if (bytes < 1024) return t('ui.attach.bytes', { count: bytes });
  if (bytes < 1 << 20) return t('ui.attach.kib', { size: (bytes / 1024).toFixed(1) });
  return t('ui.attach.mib', { size: (bytes / 1048576).toFixed(1) });
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

// The decrypted file, as the agent hands it to this page (never to a file of the agent's).
async function fetchFile(itemId, attachment, thumbnail = false) {
  return (await call('save-attachment', { item: itemId, attachment: attachment.id, thumbnail: thumbnail || undefined })).body;
}

// A preview's or the viewer's image: the agent's thumbnail (a small JPEG it made and keeps encrypted) for a
// tile, the file itself for the viewer.
async function imageURL(itemId, attachment, thumbnail = false) {
  const file = await fetchFile(itemId, attachment, thumbnail);
  const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: file.mediaType }));
  bytes.fill(0);
  previews.push(url);
  return url;
}

// The section under an item's fields: tiles, and the buttons to add a file or take a photo.
export function attachmentsSection(detail, locked) {
  const id = detail.summary.id;
  const list = detail.attachments || [];
  const section = h('section', { class: 'attachments', 'aria-labelledby': 'attachments-title' }, h('h3', { id: 'attachments-title' }, t('ui.attach.title')));
  if (list.length) {
    const grid = h('ul', { class: 'tiles' });
    for (const a of list) grid.append(tile(id, a));
    section.append(grid);
  } else {
    section.append(h('p', { class: 'hint' }, t('ui.attach.none')));
  }
  if (!locked) {
    const picker = h('input', { type: 'file', id: 'attach-file', multiple: true, hidden: true });
    const camera = h('input', { type: 'file', id: 'attach-camera', accept: 'image/*', capture: 'environment', hidden: true });
    for (const input of [picker, camera]) input.addEventListener('change', () => upload(id, [...input.files]));
    section.append(picker, camera, h('div', { class: 'row' },
      button([icon('plus'), t('ui.attach.add')], () => picker.click(), '', { id: 'attach-add' }),
      button([icon('id-card'), t('ui.attach.camera')], () => camera.click())),
    h('p', { class: 'hint' }, t('ui.attach.limit', { size: sizeText(FILE_LIMIT) })));
  }
  return section;
}

async function upload(itemId, files) {
  for (const file of files) {
    if (file.size > FILE_LIMIT) { toast(t('ui.attach.tooLarge', { name: file.name, size: sizeText(FILE_LIMIT) })); continue; }
    try {
      const body = { item: itemId, name: file.name, mediaType: file.type || undefined };
      if (file.size <= UPLOAD_LIMIT) {
        await call('attach', { ...body, base64: await fileBase64(file) });
      } else {
        const uploadID = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
        for (let at = 0; at < file.size; at += PART) {
          const more = at + PART < file.size;
          announce(t('ui.attach.uploading', { name: file.name, percent: Math.round((at / file.size) * 100) }));
          await call('attach', { ...body, base64: await fileBase64(file.slice(at, at + PART)), uploadID, more });
        }
      }
      announce(t('ui.attach.added', { name: file.name }));
      toast(t('ui.attach.added', { name: file.name }));
    } catch (e) { report(e); }
  }
  await openItem(itemId);
}

function tile(itemId, a) {
  const label = h('span', { class: 'name' }, a.name);
  const meta = h('span', { class: 'hint' }, a.available ? sizeText(a.size) : t('ui.attach.notHere'));
  const preview = h('span', { class: 'preview' }, icon('file-text'));
  const open = h('button', { type: 'button', class: 'tilebutton', 'aria-haspopup': 'menu', 'aria-label': t('ui.attach.menuFor', { name: a.name }) }, preview, label, meta);
  const li = h('li', { class: 'tile', 'data-attachment': a.id }, open);
  if (IMAGE_TYPES.includes(a.mediaType) && a.available) {
    imageURL(itemId, a, true).then((url) => {
      preview.replaceChildren(h('img', { src: url, alt: t('ui.attach.preview', { name: a.name }), draggable: 'false' }));
    }).catch(() => {});
  }
  // A click views an image and offers anything else for download; right-click or a long press opens the menu.
  open.addEventListener('click', () => (IMAGE_TYPES.includes(a.mediaType) ? viewer(itemId, a) : download(itemId, a)));
  open.addEventListener('contextmenu', (e) => { e.preventDefault(); menu(itemId, a, li); });
  let pressed = null;
  open.addEventListener('pointerdown', (e) => { if (e.pointerType !== 'mouse') pressed = setTimeout(() => menu(itemId, a, li), 600); });
  for (const end of ['pointerup', 'pointerleave', 'pointercancel']) open.addEventListener(end, () => clearTimeout(pressed));
  open.addEventListener('keydown', (e) => { if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) { e.preventDefault(); menu(itemId, a, li); } });
  return li;
}

function menu(itemId, a, li) {
  for (const old of document.querySelectorAll('.tilemenu')) old.remove();
  const close = () => m.remove();
  const entry = (text, cls) => h('button', { type: 'button', role: 'menuitem', class: cls || undefined }, text);
  const items = [];
  if (IMAGE_TYPES.includes(a.mediaType)) items.push([t('ui.attach.view'), () => viewer(itemId, a)]);
  items.push([t('ui.attach.download'), () => download(itemId, a)]);
  items.push([t('ui.attach.delete'), () => remove(itemId, a), 'danger']);
  const m = h('div', { class: 'tilemenu', role: 'menu', 'aria-label': t('ui.attach.menuFor', { name: a.name }) });
  for (const [text, run, cls] of items) {
    const b = entry(text, cls);
    b.addEventListener('click', () => { close(); run(); });
    m.append(b);
  }
  m.addEventListener('keydown', (e) => { if (e.key === 'Escape') { close(); li.querySelector('.tilebutton').focus(); } });
  li.append(m);
  m.querySelector('button').focus();
  setTimeout(() => document.addEventListener('click', (e) => { if (!m.contains(e.target)) close(); }, { once: true }), 0);
}

async function download(itemId, a) {
  const go = await dialog(t('ui.attach.download'), h('p', {}, t('ui.attach.leaves', { name: a.name })),
    [{ label: t('ui.cancel'), value: false }, { label: t('ui.attach.downloadConfirm'), value: true, primary: true }]);
  if (!go) return;
  try {
    const file = await fetchFile(itemId, a);
    saveFile(file);
    file.base64 = '';
  } catch (e) { report(e); }
}

async function remove(itemId, a) {
  const sure = await dialog(t('ui.attach.delete'), h('p', {}, t('ui.attach.deleteAsk', { name: a.name })),
    [{ label: t('ui.cancel'), value: false }, { label: t('ui.attach.delete'), value: true, danger: true }]);
  if (!sure) return;
  try {
    await call('detach', { item: itemId, attachment: a.id });
    toast(t('ui.attach.deleted', { name: a.name }));
    await openItem(itemId);
  } catch (e) { report(e); }
}

// The full-size viewer (LB-7): fitted at first; the wheel zooms about the pointer; a double-click toggles
// between fit and 3×; a drag pans once zoomed; zooming below fit snaps back to it. + − 0 and the arrows do the
// same from the keyboard.
async function viewer(itemId, a) {
  let url;
  try { url = await imageURL(itemId, a); } catch (e) { report(e); return; }
  const img = h('img', { src: url, alt: a.name, draggable: 'false', id: 'viewer-image' });
  const stage = h('div', { class: 'stage', tabindex: '0', 'aria-label': t('ui.attach.viewerHelp') }, img);
  let scale = 1, x = 0, y = 0;
  const apply = () => {
    if (scale <= 1) { scale = 1; x = 0; y = 0; }
    img.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
    img.dataset.scale = String(Math.round(scale * 100) / 100);
    stage.classList.toggle('zoomed', scale > 1);
  };
  const zoomTo = (next, cx = 0, cy = 0) => {
    const target = Math.min(8, next);
    // Keeps the point under the pointer where it is.
    x = cx - ((cx - x) * target) / scale;
    y = cy - ((cy - y) * target) / scale;
    scale = target;
    apply();
  };
  const centre = (e) => {
    const r = stage.getBoundingClientRect();
    return [e.clientX - r.left - r.width / 2, e.clientY - r.top - r.height / 2];
  };
  stage.addEventListener('wheel', (e) => { e.preventDefault(); zoomTo(scale * (e.deltaY < 0 ? 1.25 : 0.8), ...centre(e)); }, { passive: false });
  stage.addEventListener('dblclick', (e) => { if (scale > 1) { scale = 1; apply(); } else zoomTo(3, ...centre(e)); });
  let drag = null;
  stage.addEventListener('pointerdown', (e) => { if (scale > 1) { drag = [e.clientX - x, e.clientY - y]; stage.setPointerCapture(e.pointerId); } });
  stage.addEventListener('pointermove', (e) => { if (drag) { x = e.clientX - drag[0]; y = e.clientY - drag[1]; apply(); } });
  stage.addEventListener('pointerup', () => { drag = null; });
  stage.addEventListener('keydown', (e) => {
    const moves = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] };
    if (e.key === '+' || e.key === '=') zoomTo(scale * 1.25);
    else if (e.key === '-') zoomTo(scale * 0.8);
    else if (e.key === '0') { scale = 1; apply(); }
    else if (moves[e.key] && scale > 1) { x += moves[e.key][0]; y += moves[e.key][1]; apply(); }
    else return;
    e.preventDefault();
  });
  apply();
  setTimeout(() => stage.focus(), 0);
  await dialog(a.name, stage, [{ label: t('ui.close'), value: true, primary: true }], 'viewer');
}

