// How each screen of the example looks: one function per registered view-model name, given the
// screen's view model (null while it is not available), its key, and `ui` — `ui.command(name,
// body)` sends a command of this screen's view model, `ui.navigate(type, payload)` a navigation
// action. Each returns {title, nodes}. A screen without a function here is shown as its JSON.

/** An element with text and attributes; `on` maps event names to handlers. */
export function element(tag, { text, on = {}, ...attributes } = {}, children = []) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const [name, handler] of Object.entries(on)) node.addEventListener(name, handler);
  node.append(...children);
  return node;
}

function button(text, id, handler, primary = false) {
  return element('button', { type: 'button', id, text, class: primary ? 'primary' : '', on: { click: handler } });
}

/** The bases the counter screens offer, as [key, label]. */
const bases = [['2', 'binary'], ['8', 'octal'], ['16', 'hexadecimal']];

function counterButtons(ui) {
  return element('div', { class: 'row' }, [
    button('−', 'decrease', () => ui.command('decrease')),
    button('+', 'increase', () => ui.command('increase'), true),
  ]);
}

function baseLinks(ui, except) {
  return element('div', { class: 'row' }, bases.filter(([key]) => key !== except).map(([key, label]) =>
    button(`In ${label}`, `base-${key}`, () => ui.navigate('navigation.push', { screen: 'counterInBase', key }))));
}

const unavailable = (text) => element('p', { class: 'note', id: 'unavailable', text });

export const screens = {
  counter(viewModel, key, ui) {
    if (!viewModel) return { title: 'Counter', nodes: [unavailable('The counter is not available.')] };
    return {
      title: 'Counter',
      nodes: [element('p', { class: 'big', id: 'counter-value', text: viewModel.counter }), counterButtons(ui), baseLinks(ui)],
    };
  },

  counterInBase(viewModel, key, ui) {
    const title = `Counter in base ${key}`;
    if (!viewModel) return { title, nodes: [unavailable(`There is no base ${key}: a base is 2 to 36.`)] };
    return {
      title,
      nodes: [
        element('p', { class: 'big', id: 'counter-value', text: viewModel.counter }),
        element('p', { class: 'note', text: `base ${viewModel.base}` }),
        counterButtons(ui),
        baseLinks(ui, key),
        element('div', { class: 'row' }, [button('Back to the counter', 'pop-to-root', () => ui.navigate('navigation.popToRoot'))]),
      ],
    };
  },

  greetings(viewModel, key, ui) {
    if (!viewModel) {
      return {
        title: 'Account',
        nodes: [
          element('p', { id: 'greeting', text: 'Nobody is logged in.' }),
          element('div', { class: 'row' }, [button('Log in', 'show-login', () => ui.navigate('navigation.showModal', { screen: 'login' }), true)]),
        ],
      };
    }
    return {
      title: 'Account',
      nodes: [
        element('p', { id: 'greeting', class: 'big', text: viewModel.greetings }),
        element('div', { class: 'row' }, [button('Log out', 'logout', () => ui.command('logout'))]),
      ],
    };
  },

  login(viewModel, key, ui) {
    if (!viewModel) return { title: 'Log in', nodes: [unavailable('Somebody is logged in already.')] };
    const first = element('input', { id: 'first-name', name: 'firstName', autocomplete: 'given-name', required: '' });
    const last = element('input', { id: 'last-name', name: 'lastName', autocomplete: 'family-name', required: '' });
    const form = element('form', { id: 'login-form', on: {
      submit: (event) => {
        event.preventDefault();
        ui.command('login', { firstName: first.value.trim(), lastName: last.value.trim() });
      },
    } }, [
      element('p', { text: viewModel.prompt }),
      element('label', { for: 'first-name', text: 'First name' }), first,
      element('label', { for: 'last-name', text: 'Last name' }), last,
      element('div', { class: 'row' }, [element('button', { type: 'submit', id: 'login-submit', class: 'primary', text: 'Log in' })]),
    ]);
    return { title: 'Log in', nodes: [form] };
  },
};

/** The screen `screen` rendered, or its JSON for a screen this client does not know. */
export function renderScreen(screen, viewModel, key, ui) {
  if (Object.hasOwn(screens, screen)) return screens[screen](viewModel, key, ui);
  const text = viewModel === null ? 'not available' : JSON.stringify(viewModel, null, 2);
  return { title: key ? `${screen} (${key})` : screen, nodes: [element('pre', { id: 'json', text })] };
}
