// The browser's back button, mapped to the navigation (History API).
//
// The page keeps one extra history entry (a "sentinel") above its own. Back leaves the sentinel
// and fires popstate: the page asks `goBack` to act on the screen shown (close the modal, else
// go back one screen) and, when it did, pushes the sentinel again so that the next Back does the
// same. On a tab's root screen with no modal there is nothing to go back from: the page steps
// back once more, leaving the app as Back does on any page. Forward has nothing to redo.

const sentinel = { remvvmApp: 'screen' };

/** Puts the sentinel above the page's entry unless it is there (after a reload it is). */
function ensureSentinel() {
  if (history.state?.remvvmApp === 'screen') return;
  history.replaceState({ remvvmApp: 'base' }, '');
  history.pushState(sentinel, '');
}

/** Installs the mapping; `goBack()` returns whether it sent a navigation action. */
export function mapBackButton(goBack) {
  ensureSentinel();
  // Back on a root screen of a page opened in a new tab has nowhere to go and leaves the page on
  // its own entry: the next click puts the sentinel back.
  document.addEventListener('click', ensureSentinel);
  window.addEventListener('popstate', (event) => {
    if (event.state?.remvvmApp === 'screen') return; // Forward onto the sentinel: nothing to do.
    if (goBack()) {
      history.pushState(sentinel, '');
    } else {
      history.back();
    }
  });
}
