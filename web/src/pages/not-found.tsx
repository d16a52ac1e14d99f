/** A path the dashboard does not know (a stale bookmark, a typo): say so and offer the way home. */
export function NotFoundPage({ home }: { home: string }) {
  return (
    <section>
      <h1>Page not found</h1>
      <div class="card narrow">
        <p>
          There is no page at <code>{location.pathname}</code>.
        </p>
        <p>
          <a href={home}>Go to the start page</a>
        </p>
      </div>
    </section>
  );
}
