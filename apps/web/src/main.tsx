import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError, Session, forgetToken, get, keepToken, setApiToken, takeToken } from './api';
import { Feed, FeedState } from './feed';
import { Ctx } from './live';
import { NodesStore } from './nodes-store';
import { Nodes } from './pages/Nodes';
import { Overview } from './pages/Overview';
import { Quotas } from './pages/Quotas';
import { Sites } from './pages/Sites';
import { TaskQueue } from './pages/TaskQueue';
import { TaskQueues } from './pages/TaskQueues';
import { WorkloadDetail } from './pages/WorkloadDetail';
import { Workloads } from './pages/Workloads';
import './styles.css';

function useRoute(): string {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const on = () => setHash(window.location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash.replace(/^#/, '') || '/';
}

function Page({ route }: { route: string }) {
  const workload = /^\/workloads\/([0-9a-f-]{36})$/.exec(route);
  if (workload) return <WorkloadDetail id={workload[1]} />;
  const taskQueue = /^\/taskqueues\/([0-9a-f-]{36})$/.exec(route);
  if (taskQueue) return <TaskQueue id={taskQueue[1]} />;
  if (route === '/taskqueues') return <TaskQueues />;
  if (route === '/nodes') return <Nodes />;
  if (route === '/workloads') return <Workloads />;
  if (route === '/quotas') return <Quotas />;
  if (route === '/sites') return <Sites />;
  return <Overview />;
}

function SignIn({ error, onToken }: { error?: string; onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      className="signin"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) onToken(value.trim());
      }}
    >
      <h1>HCN</h1>
      <p>
        Open the URL <code>npm start</code> printed (it carries <code>#token=…</code>), or paste an API token.
      </p>
      {error ? <p className="error">{error}</p> : null}
      <input
        type="password"
        placeholder="API token"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit">Sign in</button>
    </form>
  );
}

function Signed({ session, token, onSignOut }: { session: Session; token: string; onSignOut: () => void }) {
  const [live, setLive] = useState<{ feed: Feed; nodes: NodesStore }>();
  const [state, setState] = useState<FeedState>('connecting');
  useEffect(() => {
    // Created here (not in render) so that StrictMode's mount/unmount/mount leaves one open connection.
    const feed = new Feed(token);
    const nodes = new NodesStore(feed);
    const off = feed.onState(setState);
    setLive({ feed, nodes });
    return () => {
      off();
      nodes.close();
      feed.close();
    };
  }, [token]);
  const route = useRoute();
  const tab = ['/workloads', '/taskqueues'].find((t) => route.startsWith(t)) ?? route;
  if (!live) return null;
  return (
    <Ctx.Provider value={{ feed: live.feed, session, nodes: live.nodes }}>
      <header>
        <h1>HCN</h1>
        <nav>
          {[
            ['/', 'Overview'],
            ['/nodes', 'Nodes'],
            ['/workloads', 'Workloads'],
            ['/taskqueues', 'Task queues'],
            ['/quotas', 'Quotas'],
            ['/sites', 'Sites'],
          ].map(([path, label]) => (
            <a key={path} href={`#${path}`} className={tab === path ? 'active' : ''}>
              {label}
            </a>
          ))}
        </nav>
        <span className={`feed ${state}`} data-testid="feed-state">
          {state}
        </span>
        <span className="muted">
          {session.name} ({session.role})
        </span>
        <button className="link" onClick={onSignOut}>
          sign out
        </button>
      </header>
      <main>
        <Page route={route} />
      </main>
    </Ctx.Provider>
  );
}

function App() {
  const [token, setToken] = useState<string | null>(() => takeToken());
  const [session, setSession] = useState<Session>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!token) return;
    setApiToken(token);
    get<Session>('/v1/session')
      .then(setSession)
      .catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) {
          forgetToken();
          setToken(null);
        }
        setError(e instanceof Error ? e.message : String(e));
      });
  }, [token]);
  if (!token) {
    return <SignIn error={error} onToken={(t) => (keepToken(t), setError(undefined), setToken(t))} />;
  }
  if (!session) return <p className="muted">{error ?? 'signing in…'}</p>;
  return (
    <Signed
      session={session}
      token={token}
      onSignOut={() => {
        forgetToken();
        setSession(undefined);
        setToken(null);
      }}
    />
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
