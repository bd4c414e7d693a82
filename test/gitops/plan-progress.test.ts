// A long terraform plan shows progress: the resources it has read so far, from the lines terraform
// prints as it reads each one, as a note every few seconds while the count grows, and none once
// it has stopped growing or the plan has ended.
import { planProgress } from '../../src/gitops/progress';

describe('planProgress', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('counts the resources terraform reads, says so while the count grows, and stops', () => {
    const notes: string[] = [];
    const reading = planProgress((m) => notes.push(m), 'terraform plan', 5000);
    reading.line('proxyaccount_authorized_ip.office: Refreshing state... [id=_self/203.0.113.10]');
    reading.line('data.proxyaccount_proxies.all: Reading...'); // a data source is read, not refreshed
    jest.advanceTimersByTime(5000);
    expect(notes).toEqual(['terraform plan: 1 resource read so far']);
    jest.advanceTimersByTime(5000); // nothing new: no note
    expect(notes).toHaveLength(1);
    for (let i = 0; i < 41; i += 1) reading.line(`proxyaccount_authorized_ip.ip["${i}"]: Refreshing state... [id=alice/198.51.100.${i}]`);
    jest.advanceTimersByTime(5000);
    expect(notes).toEqual(['terraform plan: 1 resource read so far', 'terraform plan: 42 resources read so far']);
    reading.stop();
    reading.line('proxyaccount_authorized_ip.late: Refreshing state... [id=_self/203.0.113.11]');
    jest.advanceTimersByTime(60_000);
    expect(notes).toHaveLength(2);
  });

  it('stops its timer when the plan ends', () => {
    const reading = planProgress(() => undefined, 'terraform plan');
    expect(jest.getTimerCount()).toBe(1);
    reading.stop();
    expect(jest.getTimerCount()).toBe(0);
  });
});
