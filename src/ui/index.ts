// Cairn Explorer: a web page over the public API, served by `cairn serve` at /ui (routes.ts; the page: app/).
export { uiRoutes } from './routes.ts';
