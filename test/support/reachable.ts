import { Socket } from 'node:net'

/** Whether something accepts TCP connections on 127.0.0.1:`port` (1 s at most). */
export function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket()
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once('error', () => done(false))
    socket.connect(port, '127.0.0.1', () => done(true))
  })
}
