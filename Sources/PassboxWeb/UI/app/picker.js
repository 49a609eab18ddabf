// Several items at once (LST-8, VLT-8, TRS-1): "Select" puts the list in picking mode, and a floating bar acts on
// what is picked: add to favourites, move or copy to another vault, or move to the trash with one Undo for all.
import { call } from './api.js';
import { t } from './i18n.js';
import { h, button, iconButton, clear, toast } from './dom.js';
import { state, report, refreshList, loadVaults } from './app.js';

const NO_CHANGES = { fieldsFromCommandLine: [], secretFields: [], removeFields: [] };

// The bar for `list` (an ItemList); it shows while the list is picking and follows what is picked.
export function pickBar(list) {
  const bar = h('div', { class: 'pickbar', role: 'toolbar', 'aria-label': t('ui.pick.bar'), hidden: true });
  const done = () => list.setPicking(false);
  const run = async (action) => {
    const ids = [...(list.picking || [])];
    if (!ids.length) { toast(t('ui.pick.none')); return; }
    try { await action(ids); } catch (e) { report(e); }
  };
  const favorite = () => run(async (ids) => {
    for (const item of ids) await call('edit', { item, changes: { favorite: true, ...NO_CHANGES } });
    done();
    await refreshList();
    toast(t('ui.pick.favorited', { count: ids.length }));
  });
  const trash = () => run(async (ids) => {
    for (const item of ids) await call('delete', { item });
    done();
    await refreshList();
    toast(t('ui.pick.trashed', { count: ids.length }), { label: t('ui.undo'), run: async () => {
      try { for (const item of ids) await call('trash-restore', { item }); await refreshList(); } catch (e) { report(e); }
    } }, 10);
  });
  const render = () => {
    bar.hidden = !list.picking;
    bar.parentElement?.classList.toggle('picking', !!list.picking);
    document.getElementById('pick-start')?.setAttribute('aria-pressed', list.picking ? 'true' : 'false');
    if (!list.picking) return;
    const count = list.picking.size;
    const vaults = state.vaults || [];
    // The vault chosen stays chosen while more items are picked.
    const before = bar.querySelector('#pick-vault');
    const target = vaults.length > 1 ? h('select', { id: 'pick-vault', 'aria-label': t('ui.pick.vault') }, ...vaults.map((v) => h('option', { value: v.id, selected: before && before.value === v.id }, v.name))) : null;
    const moveOrCopy = (copy) => run(async (ids) => {
      const vault = vaults.find((v) => v.id === target.value);
      await call('move', { items: ids, vault: target.value, copy });
      done();
      await loadVaults();
      await refreshList();
      toast(t(copy ? 'ui.pick.copied' : 'ui.pick.moved', { count: ids.length, vault: vault ? vault.name : '' }));
    });
    clear(bar).append(...[
      h('span', { class: 'grow', id: 'pick-count', 'aria-live': 'polite' }, t('ui.pick.count', { count })),
      iconButton('star', t('ui.pick.favorite'), favorite, { id: 'pick-favorite' }),
      target, target ? iconButton('folder-input', t('ui.pick.move'), () => moveOrCopy(false), { id: 'pick-move' }) : null,
      target ? iconButton('copy', t('ui.pick.copy'), () => moveOrCopy(true), { id: 'pick-copy' }) : null,
      iconButton('trash-2', t('ui.pick.trash'), trash, { id: 'pick-trash' }),
      button(t('ui.pick.done'), done, 'ghost', { id: 'pick-done' }),
    ].filter(Boolean));
  };
  list.onPick = render;
  return bar;
}
